import { redirect } from 'next/navigation';
import { getServerSession } from 'next-auth';
import { authOptions } from '@/lib/auth/options';

export default async function Home() {
  const session = await getServerSession(authOptions);
  redirect(session ? '/lists' : '/signin');
}
